"""Background jobs of the service: ``parse``, ``generate``, ``score``, ``evaluate`` and
``kalma-generate`` run by :class:`~kgbench.service.jobs.manager.JobManager`, each in a
child process (:mod:`~kgbench.service.jobs.child`) that calls the same use-case
function as the command line; parameters in :mod:`~kgbench.service.jobs.specs`,
endpoints in :mod:`~kgbench.service.jobs.routes`."""
