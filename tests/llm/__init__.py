"""Tests of the OpenAI-compatible chat client (llm/) against a real HTTP server."""
