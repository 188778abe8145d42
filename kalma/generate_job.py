"""The ``kalma generate`` use case's first step: check the store and read the domain
spec against it, into a :class:`~kalma.builder.BuildConfig` for
:func:`kalma.generate.generate_entries`. The command line and the service's job runner
both call it, so a job builds what the command builds."""

from __future__ import annotations

from extension.inputs.domain_spec import parse_domain_spec
from extension.run.generate_inputs import check_store
from kalma.builder import BuildConfig
from kalma.errors import KalmaError
from kgstore import open_store

__all__ = ["kalma_build_config"]


def kalma_build_config(location: str, domain: str, *, n: int, seed: int, iterations: int,
                       alpha: float, single: bool) -> BuildConfig:
    """The build configuration for ``domain`` (a type or a predicate prefix) in the
    store at ``location``; a store without facts or names is
    :class:`~extension.run.generate_inputs.GenerateInputError`, an unknown domain
    :class:`KalmaError` naming ``--domain``."""
    with open_store(location, read_only=True) as store:
        check_store(store, location)
        try:
            spec = parse_domain_spec(domain, store)
        except ValueError as exc:
            raise KalmaError(f"--domain {domain}: {exc}") from None
    return BuildConfig(domain=spec, n=n, seed=seed, iterations=iterations, alpha=alpha,
                       single=single)
