"""Machine conditions the tests simulate in the processes they start: they put this folder first on PYTHONPATH, so
that process and every child it starts import this at start-up.

SYNTH_PLANT_SIGILL=MODE        llama.cpp dies of a real illegal instruction (planted_fault.py)
SYNTH_SIMULATED_INSTALL=EXTRAS only what `pip install "synth-crs[EXTRAS]"` installs can be imported (simulated_install.py)
"""

import os

if os.environ.get("SYNTH_SIMULATED_INSTALL") is not None:
    from simulated_install import simulate

    simulate(os.environ["SYNTH_SIMULATED_INSTALL"])
if os.environ.get("SYNTH_PLANT_SIGILL"):
    from planted_fault import plant

    plant()
