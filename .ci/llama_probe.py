"""Exit 0 when the installed llama-cpp-python runs one short completion on the packaged SmolLM2.

`.ci/run` calls it in a child process after the install: a build for another processor, or one with Intel AMX on a
virtual machine that faults on AMX tile instructions, dies here of "Illegal instruction" (exit 132) instead of
halfway through the tests.
"""

from llama_cpp import Llama

from synth.llm.gguf_models import PACKAGED, materialize_packaged

model = materialize_packaged(PACKAGED["smollm2-135m"])
llm = Llama(model_path=str(model.path), n_ctx=256, n_batch=64, verbose=False)
llm("Recommend one movie about space travel to a friend who likes quiet dramas:", max_tokens=4)
print(f"llama.cpp runs here ({model.name})")
