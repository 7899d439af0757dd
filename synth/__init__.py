"""synth: generate, filter and benchmark synthetic conversational-recommendation dialogues."""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("synth-crs")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0+unknown"
