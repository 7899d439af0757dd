"""The openai backend posts its chat body as it is, skipping the SDK's typed transform of the parameters: the
body must be exactly what the SDK's own `chat.completions.create` would have sent."""

import asyncio

from openai._utils import async_maybe_transform
from openai.types.chat import completion_create_params

from synth.llm.openai_compat import chat_body, response_format

SCHEMA = {
    "type": "object",
    "properties": {"think": {"type": "string"}, "item": {"enum": ["Heat (1995)", "Alien (1979)"]},
                   "utterance": {"type": "string", "maxLength": 300}},
    "required": ["think", "item", "utterance"],
    "additionalProperties": False,
}


def test_the_posted_body_is_what_the_sdk_would_send():
    messages = [{"role": "system", "content": "You recommend movies."}, {"role": "user", "content": "Something dark?"},
                {"role": "assistant", "content": '{"utterance": "Seen Heat?"}'}]
    for mode in ("json_schema", "json_object"):
        body = chat_body("m", messages, max_tokens=64, temperature=0.7, seed=3, stop=["\n\n"])
        body["response_format"] = response_format(mode, SCHEMA)
        sdk = asyncio.run(async_maybe_transform(body, completion_create_params.CompletionCreateParamsNonStreaming))
        assert sdk == body
    plain = chat_body("m", messages, max_tokens=8, temperature=0.0)
    assert set(plain) == {"model", "messages", "max_tokens", "temperature"}
