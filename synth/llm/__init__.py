"""LLM backends behind one async interface (see `base.ChatBackend`)."""

from synth.llm.base import ChatBackend, Completion, Message, ModelInfo

__all__ = ["ChatBackend", "Completion", "Message", "ModelInfo"]
