"""Several requests decoded together in one llama.cpp context, through llama-cpp-python's low-level API.

The engine owns one context with a sequence (slot) per dialogue and role. Its one thread loops: it gives
each waiting request the free slot whose cached tokens share the longest prefix with its prompt (so only
the new turn is evaluated), then builds one batch per step from every running request (prompt chunks for
those still reading their prompt, the tokens to feed for each that is generating), decodes it, and samples a
token for each request from its own logits, with its own seed and grammar state.

Grammars are llguidance matchers (a JSON schema compiled as it is, or a GBNF grammar), which cost almost
nothing per token: the token is picked from the raw logits first and the matcher only checks that one token;
when the pick breaks the grammar, the whole vocabulary is masked (a bitmask in well under a millisecond) and
the pick is made again. The tokens the grammar forces next (a JSON key with its quotes and separator, the rest
of a candidate's title once its first tokens pick it) are not decoded one by one: they join the reply at
once and are fed to the model together with the sampled token, in one step at prompt speed (llguidance's
fast-forward tokens). Sampling: greedy at temperature 0, otherwise top-k 40, top-p 0.95, min-p 0.05 and the
temperature (llama-cpp-python's defaults), from a generator seeded per request.

The sampler is our own (numpy over the step's logits) rather than llama.cpp's sampler chain: a chain applies
its grammar sampler to every candidate on every token, and cannot feed forced tokens as a batch.
"""

from __future__ import annotations

import queue
import threading
import time
import warnings
from concurrent.futures import Future
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from synth.errors import SynthError
from synth.llm.engine_check import load_llama

TOP_K, TOP_P, MIN_P = 40, 0.95, 0.05
REUSE_MIN_TOKENS = 64  # a shorter shared prefix is only the chat template's header: take an unused slot instead
JSON_FORMAT = {"whitespace_flexible": False, "key_separator": ": ", "item_separator": ", "}  # as the prompts write it


@dataclass
class Request:
    """One completion asked of the engine: a grammar is a JSON schema (`json_schema`, as JSON text) or GBNF."""

    prompt: list[int]
    max_tokens: int
    temperature: float
    seed: int | None
    stop: list[str]
    grammar: str | None = None
    json_schema: str | None = None
    done: Future[Result] = field(default_factory=Future)


@dataclass(frozen=True)
class Result:
    """A finished request: its text, token counts (`forced_tokens` of the completion's were the grammar's, fed
    without decoding) and decoding time."""

    text: str
    prompt_tokens: int
    completion_tokens: int
    finish_reason: str
    prompt_tokens_evaluated: int
    decode_s: float
    forced_tokens: int = 0


class _Guide:
    """A request's grammar state: an llguidance matcher over the model's vocabulary."""

    def __init__(self, tokenizer: Any, request: Request) -> None:
        import llguidance
        from llguidance.gbnf_to_lark import gbnf_to_lark

        try:
            if request.json_schema is not None:
                grammar = llguidance.LLMatcher.grammar_from_json_schema(request.json_schema, defaults=JSON_FORMAT)
            else:
                grammar = llguidance.LLMatcher.grammar_from_lark(gbnf_to_lark(request.grammar or ""))
        except Exception as exc:
            raise SynthError(f"could not parse the reply's grammar: {exc}") from None
        self._matcher = llguidance.LLMatcher(tokenizer, grammar)
        if self._matcher.is_error():
            raise SynthError(f"could not parse the reply's grammar: {self._matcher.get_error()}")

    def allows(self, token: int) -> bool:
        return self._matcher.validate_tokens([token]) == 1

    def mask(self, logits: np.ndarray) -> np.ndarray:
        """The logits with every token the grammar forbids here set to -inf."""
        bits = np.frombuffer(self._matcher.compute_bitmask(), dtype=np.uint8)
        allowed = np.unpackbits(bits, bitorder="little")[: len(logits)].astype(bool)
        return np.where(allowed, logits, -np.inf).astype(logits.dtype)

    def accept(self, token: int) -> None:
        self._matcher.consume_token(token)

    def forced(self, most: int) -> list[int]:
        """The tokens the grammar allows no choice for from here (at most `most`), taken as accepted."""
        tokens = self._matcher.compute_ff_tokens()[: max(most, 0)]
        if tokens:
            self._matcher.consume_tokens(tokens)
        return tokens

    @property
    def complete(self) -> bool:
        """The grammar allows nothing more: the reply is whole."""
        return self._matcher.is_stopped()


def pick(logits: np.ndarray, temperature: float, rng: np.random.Generator) -> int:
    """Greedy at temperature 0; else top-k, top-p and min-p filtering, then a draw at the temperature."""
    if temperature <= 0:
        return int(np.argmax(logits))
    top = np.argpartition(logits, -TOP_K)[-TOP_K:] if len(logits) > TOP_K else np.arange(len(logits))
    top = top[np.argsort(-logits[top], kind="stable")]
    top = top[np.isfinite(logits[top])]
    probs = np.exp((logits[top] - logits[top[0]]) / temperature)
    probs /= probs.sum()
    keep = max(1, int(np.searchsorted(np.cumsum(probs), TOP_P) + 1))
    keep = min(keep, int((probs >= MIN_P * probs[0]).sum()))
    probs = probs[:keep] / probs[:keep].sum()
    return int(top[rng.choice(keep, p=probs)])


@dataclass
class _Running:
    """A request in a slot: what it has evaluated and generated so far."""

    request: Request
    slot: int
    grammar: _Guide | None
    rng: np.random.Generator
    evaluated: int = 0
    generated: list[int] = field(default_factory=list)
    feed: list[int] = field(default_factory=list)  # generated tokens the model has yet to read: sampled, then forced
    forced: int = 0
    text: bytes = b""
    started_decoding: float = 0.0

    @property
    def reading_prompt(self) -> bool:
        """Still evaluating its prompt: no token sampled yet."""
        return self.started_decoding == 0.0


class BatchEngine:
    """A thread that decodes up to `slots` sequences of one model together (`submit` from any thread)."""

    def __init__(self, model_path: str, *, n_ctx: int, slots: int, n_threads: int, n_batch: int = 512) -> None:
        import llama_cpp

        self._l = llama_cpp
        self._llama = load_llama(model_path, n_ctx=32, n_threads=n_threads, verbose=False)
        self.n_ctx, self.slots, self._n_batch = n_ctx, slots, n_batch
        params = llama_cpp.llama_context_default_params()
        params.n_ctx, params.n_batch, params.n_ubatch, params.n_seq_max = n_ctx * slots, n_batch, n_batch, slots
        params.n_threads = params.n_threads_batch = n_threads
        # as llama_cpp.Llama (the serial backend) computes: one call at a time then gives the same replies
        params.flash_attn_type = llama_cpp.LLAMA_FLASH_ATTN_TYPE_DISABLED
        self._ctx = llama_cpp.llama_init_from_model(self._llama.model, params)
        if not self._ctx:
            raise SynthError(f"llama.cpp could not make a context of {n_ctx} tokens x {slots} slots for {model_path}")
        self._memory = llama_cpp.llama_get_memory(self._ctx)
        self._vocab = llama_cpp.llama_model_get_vocab(self._llama.model)
        self._n_vocab = llama_cpp.llama_vocab_n_tokens(self._vocab)
        self._batch = llama_cpp.llama_batch_init(n_batch, 0, 1)
        self._tokenizer: Any = None  # llguidance's view of the vocabulary, made for the first grammar (about 1 s)
        self._most_forced = n_batch // slots - 1  # so that every slot's sampled and forced tokens fit one batch
        self._cached: list[list[int]] = [[] for _ in range(slots)]  # the tokens each slot's sequence holds
        self._free = list(range(slots))
        self._last_used = [0] * slots  # when each slot last took a request (0: never)
        self._clock = 0
        self.widest_step = 0  # the most sequences one batch has carried so far
        self._waiting: queue.Queue[Request | None] = queue.Queue()
        self._thread = threading.Thread(target=self._loop, name="llama-batch", daemon=True)
        self._thread.start()

    @property
    def llama(self) -> Any:
        """The llama_cpp.Llama that holds the model (tokenizer, chat template, metadata)."""
        return self._llama

    def submit(self, request: Request) -> Future[Result]:
        if len(request.prompt) + request.max_tokens > self.n_ctx:
            raise SynthError(
                f"a prompt of {len(request.prompt)} tokens plus {request.max_tokens} to generate exceeds the "
                f"context of {self.n_ctx} tokens; raise it with --set n_ctx=N"
            )
        self._waiting.put(request)
        return request.done

    def close(self) -> None:
        """Finish the requests in flight, stop the thread, free the context and the model."""
        self._waiting.put(None)
        self._thread.join()
        self._l.llama_batch_free(self._batch)
        self._l.llama_free(self._ctx)
        self._llama.close()

    def _loop(self) -> None:
        running: list[_Running] = []
        pending: list[Request] = []
        accepting = True
        while accepting or running or pending:
            if accepting:
                accepting = self._take(pending, block=not running and not pending)
            pending = [request for request in pending if not request.done.cancelled()]
            while pending and self._free:
                started = self._start(pending.pop(0))
                if started is not None:
                    running.append(started)
            if running:
                try:
                    running = self._step(running)
                except Exception as exc:  # never leave a caller waiting on a dead thread
                    for run in running:
                        self._finish(run, error=exc)
                    running = []

    def _take(self, pending: list[Request], *, block: bool) -> bool:
        """Move what callers submitted to `pending`; False once close() asked to stop."""
        try:
            item = self._waiting.get(block=block)
            while True:
                if item is None:
                    return False
                pending.append(item)
                item = self._waiting.get_nowait()
        except queue.Empty:
            return True

    def _start(self, request: Request) -> _Running | None:
        """Put the request in the free slot that already holds the longest prefix of its prompt, or when
        none holds more than the template's header, in the least recently used one (None when its grammar
        does not parse: the caller gets the error)."""
        def shared(slot: int) -> int:
            cached, prompt = self._cached[slot], request.prompt
            n = 0
            for a, b in zip(cached, prompt):
                if a != b:
                    break
                n += 1
            return n

        try:
            grammar = self._guide(request) if request.grammar or request.json_schema else None
        except SynthError as exc:
            if request.done.set_running_or_notify_cancel():
                request.done.set_exception(exc)
            return None
        slot = max(self._free, key=shared)
        if shared(slot) < REUSE_MIN_TOKENS:  # another role's or dialogue's transcript: keep it for its owner
            slot = min(self._free, key=lambda free: self._last_used[free])
        self._free.remove(slot)
        self._clock += 1
        self._last_used[slot] = self._clock
        keep = min(shared(slot), len(request.prompt) - 1)  # the last prompt token is evaluated for its logits
        self._l.llama_memory_seq_rm(self._memory, slot, keep, -1)
        self._cached[slot] = self._cached[slot][:keep]
        return _Running(request, slot, grammar, np.random.default_rng(request.seed))

    def _guide(self, request: Request) -> _Guide:
        if self._tokenizer is None:
            from llguidance.llamacpp import lltokenizer_from_vocab

            with warnings.catch_warnings():  # it reads each token's attributes by a name llama.cpp deprecated
                warnings.simplefilter("ignore", DeprecationWarning)
                self._tokenizer = lltokenizer_from_vocab(self._vocab, n_vocab=self._n_vocab)
        return _Guide(self._tokenizer, request)

    def _step(self, running: list[_Running]) -> list[_Running]:
        """One batch: for each generating request its sampled token and the tokens its grammar forced after it,
        prompt chunks for the others; then sampling.
        A request whose caller gave up (a cancelled task) stops here and frees its slot."""
        for run in [run for run in running if run.request.done.cancelled()]:
            self._finish(run)
            running.remove(run)
        if not running:
            return running
        entries: list[tuple[_Running, int, bool]] = []  # (request, token, wants logits)
        for run in running:
            if not run.reading_prompt:
                entries.extend((run, token, i == len(run.feed) - 1) for i, token in enumerate(run.feed))
                run.feed = []
        for run in running:
            if run.reading_prompt:
                todo = run.request.prompt[len(self._cached[run.slot]) :]
                room = self._n_batch - len(entries)
                if room <= 0:
                    break
                chunk = todo[:room]
                entries.extend((run, token, i == len(todo) - 1) for i, token in enumerate(chunk))
        self.widest_step = max(self.widest_step, len({run.slot for run, _token, _logits in entries}))
        batch = self._batch
        batch.n_tokens = len(entries)
        for i, (run, token, logits) in enumerate(entries):
            batch.token[i], batch.pos[i], batch.n_seq_id[i] = token, len(self._cached[run.slot]), 1
            batch.seq_id[i][0], batch.logits[i] = run.slot, logits
            self._cached[run.slot].append(token)
            if run.reading_prompt:
                run.evaluated += 1
        status = self._l.llama_decode(self._ctx, batch)
        if status != 0:
            error = SynthError(f"llama.cpp could not decode a batch of {len(entries)} tokens (status {status})")
            for run in running:
                self._finish(run, error=error)
            return []
        finished = {id(run) for i, (run, _token, logits) in enumerate(entries) if logits and not self._sample(run, i)}
        return [run for run in running if id(run) not in finished]

    def _sample(self, run: _Running, index: int) -> bool:
        """Sample the request's next token from batch position `index`; False when the request is done."""
        if run.started_decoding == 0.0:
            run.started_decoding = time.perf_counter()
        pointer = self._l.llama_get_logits_ith(self._ctx, index)
        logits = np.ctypeslib.as_array(pointer, shape=(self._n_vocab,)).copy()
        request = run.request
        token = pick(logits, request.temperature, run.rng)
        if run.grammar is not None and not run.grammar.allows(token):
            token = pick(run.grammar.mask(logits), request.temperature, run.rng)
        if self._l.llama_vocab_is_eog(self._vocab, token):
            self._finish(run, reason="stop")
            return False
        forced: list[int] = []
        if run.grammar is not None:
            run.grammar.accept(token)
            forced = run.grammar.forced(min(request.max_tokens - len(run.generated) - 1, self._most_forced))
        run.generated += [token, *forced]
        run.feed, run.forced = [token, *forced], run.forced + len(forced)
        run.text += self._llama.detokenize(run.feed, special=False)
        text = run.text.decode("utf-8", errors="ignore")
        stops = [text.index(s) for s in request.stop if s in text]
        if stops:
            run.text = text[: min(stops)].encode()
            self._finish(run, reason="stop")
            return False
        if run.grammar is not None and run.grammar.complete:
            self._finish(run, reason="stop")
            return False
        if len(run.generated) >= request.max_tokens:
            self._finish(run, reason="length")
            return False
        return True

    def _finish(self, run: _Running, *, reason: str = "stop", error: Exception | None = None) -> None:
        """Free the request's slot and hand its result (or `error`) to the caller, unless it gave up."""
        self._free.append(run.slot)
        if error is not None:
            self._l.llama_memory_seq_rm(self._memory, run.slot, 0, -1)
            self._cached[run.slot] = []
        if not run.request.done.set_running_or_notify_cancel():
            return  # cancelled
        if error is not None:
            run.request.done.set_exception(error)
            return
        run.request.done.set_result(
            Result(
                text=run.text.decode("utf-8", errors="ignore"),
                prompt_tokens=len(run.request.prompt),
                completion_tokens=len(run.generated),
                finish_reason=reason,
                prompt_tokens_evaluated=run.evaluated,
                decode_s=time.perf_counter() - run.started_decoding if run.started_decoding else 0.0,
                forced_tokens=run.forced,
            )
        )

