"""Joining a Ray cluster, shared by `synth generate --ray` and `synth filter --ray`."""

from __future__ import annotations

from typing import Any

from synth.errors import SynthError

RAY_HINT = "--ray needs the 'ray' extra: pip install 'synth-crs[ray]'"


def connect(address: str) -> Any:
    """The `ray` module, connected: 'local' starts a cluster in this process, 'auto' joins the running one
    (`ray start --head`), anything else is a cluster address. An already initialised Ray is kept."""
    try:
        import ray
    except ImportError:
        raise SynthError(RAY_HINT) from None
    if not ray.is_initialized():
        try:
            ray.init(address=None if address == "local" else address, include_dashboard=False, log_to_driver=False)
        except ConnectionError as exc:
            raise SynthError(f"cannot reach a Ray cluster at {address!r} ({exc}); start one with `ray start --head`, "
                             "or use --ray local") from None
    return ray
