"""A planted fault: with SYNTH_PLANT_SIGILL set, llama.cpp runs a real illegal instruction (ud2) where a build for
another processor, or AMX on a virtual machine that cannot run it, would.

SYNTH_PLANT_SIGILL=extra-buffers  a model loaded with llama.cpp's extra buffer types faults (the AMX case)
SYNTH_PLANT_SIGILL=always         every model load faults (a build for another processor)
SYNTH_PLANT_SIGILL=decode         every llama_decode faults, in this process only (after a check that passed)
"""

import ctypes
import mmap
import os
import platform

MODE = os.environ.get("SYNTH_PLANT_SIGILL")
# x86-64 ud2; AArch64 udf #0: instructions every processor refuses
INVALID = b"\x0f\x0b" if platform.machine() in ("x86_64", "AMD64") else b"\x00\x00\x00\x00"


def illegal_instruction() -> None:
    page = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    page.write(INVALID)
    ctypes.CFUNCTYPE(None)(ctypes.addressof(ctypes.c_char.from_buffer(page)))()


def plant() -> None:
    import llama_cpp
    import llama_cpp.llama_cpp as low_level

    load = low_level.llama_model_load_from_file

    def faulting_load(path, params):
        if MODE == "always" or (MODE == "extra-buffers" and params.use_extra_bufts):
            illegal_instruction()
        return load(path, params)

    low_level.llama_model_load_from_file = faulting_load
    if MODE == "decode":
        os.environ.pop("SYNTH_PLANT_SIGILL")  # child processes run clean

        def faulting_decode(*args):
            illegal_instruction()

        low_level.llama_decode = llama_cpp.llama_decode = faulting_decode

