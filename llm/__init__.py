"""An OpenAI-compatible chat client: endpoint settings, errors, the wire format, retries
and rate limits, a bounded HTTP transport and an on-disk reply cache. It knows nothing of
kgbench's samples and imports nothing from :mod:`extension`, which sits above it."""
