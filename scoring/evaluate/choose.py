"""Which evaluator a run asks for: a predictions file, an exported model or an LLM
endpoint. The command line (``kgbench evaluate``) and the service's evaluate job name
the evaluator by the same options and get the same object from :func:`make_evaluator`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from scoring.evaluate.run import Evaluator
    from scoring.evaluate.schemes import LabelScheme
    from scoring.protocol import ProtocolName

__all__ = ["make_evaluator"]


def make_evaluator(scheme: LabelScheme, *, predictions: Path | None = None,
                   model: Path | None = None, llm_url: str | None = None,
                   llm_model: str | None = None, prompt: str | None = None,
                   prompts_file: Path | None = None, nli_map: dict[str, str] | None = None,
                   device: str = "auto", llm_timeout: float = 120.0, llm_retries: int = 5,
                   llm_rps: float | None = None, llm_cache: Path = Path(".kgbench-llm-cache"),
                   llm_parallel: int = 4, protocol: ProtocolName = "kgbench") -> Evaluator:
    """The evaluator named by exactly one of ``predictions``, ``model`` and
    ``llm_url`` (the caller checks that one is given), reading replies and NLI outputs
    as ``protocol`` does. The modules of the model and the LLM evaluators
    (onnxruntime, the HTTP client) are imported only when chosen."""
    if predictions is not None:
        from scoring.evaluate.run import PredictionsFileEvaluator

        return PredictionsFileEvaluator(predictions, scheme, protocol)
    if model is not None:
        from scoring.evaluate.model_evaluator import Device, ModelEvaluator

        return ModelEvaluator(model, scheme, nli_map=nli_map or {}, device=cast(Device, device),
                              protocol=protocol)
    from llm.endpoint import endpoint_from_options
    from scoring.evaluate.llm_evaluator import LLMEvaluator
    from scoring.evaluate.prompts import default_prompt, select_prompt

    if llm_url is None:
        raise ValueError("an evaluator needs predictions, a model or an LLM endpoint")
    endpoint = endpoint_from_options(llm_url, llm_model, requests_per_second=llm_rps,
                                     timeout_s=llm_timeout, max_retries=llm_retries)
    chosen = select_prompt(prompt or default_prompt(scheme.name, prompts_file), scheme,
                           prompts_file)
    return LLMEvaluator(endpoint, chosen, scheme, llm_cache, parallel=llm_parallel,
                        protocol=protocol)
