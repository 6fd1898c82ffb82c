"""The OpenAI-compatible chat-completions base every such vendor is built on.

Fireworks today; the coming deployments and local OpenAI-compatible servers (vLLM,
Ollama, LM Studio) next. A vendor is a profile (`profile.ChatCompletionsProfile`: its
name, label, key variables, option rules, request-id headers, ...), a registry row and a
few overrides: a codec subclass naming it, an options subclass for what it does
differently, a client subclass with its endpoint. Nothing here is a vendor fact.

* ``codec.py``: chat-completions history <-> the IR (`ChatCompletionsCodec`).
* ``mapping.py``: `ModelRequest` -> ``chat.completions.create`` keywords, one builder per
  section; usage and stop reasons.
* ``stream.py``: chunks -> deltas and the final message (``<think>`` tags included).
* ``client.py``: the ``openai`` SDK client, its sharing, streaming and errors.
* ``options.py``: the option rules a vendor starts from (``reasoning_effort``).
* ``profile.py``: the vendor's facts.
* ``salvage.py``: what a chat-completions message keeps when a history leaves the vendor.

How to add a vendor: ``docs/guide/providers-openai-compatible.md``. Nothing is imported
here, so importing a vendor module imports only what it needs (never ``openai``).
"""
