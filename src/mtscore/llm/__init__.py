"""LLM judges (GEMBA-ESA, GEMBA-MQM, GEMBA-DA): building requests, sending them, parsing answers.

Three parts kept apart (docs/llm-judges.md): :mod:`mtscore.llm.prompts` builds the chat messages (pure; the
request's digest is its cache key), :mod:`mtscore.llm.client` is the one scheduler that sends requests to an
OpenAI-compatible server, and :mod:`mtscore.llm.parse` reads the answers (pure). Nothing here imports torch.
"""
