"""Black-box optimizers for the bbob workload.

Each calls ``instance.objective(meter)``, a function that charges one call
per evaluation and raises BudgetExhausted, before evaluating, once the
allowance is used: a budget of N evaluations returns exactly N values. None of
them is trusted to respect its own evaluation option: the wrapper is the cap.
Starting points come from the arm's seeded rng, so runs are reproducible.
"""
from __future__ import annotations

import numpy as np


def _start(instance, rng) -> np.ndarray:
    return rng.uniform(instance.lower + 1, instance.upper - 1)


class RandomSearch:
    """Uniform samples in the box until the budget stops it."""
    workloads = ("bbob",)

    def run(self, instance, meter, rng):
        f = instance.objective(meter)
        while True:
            f(rng.uniform(instance.lower, instance.upper))


class NelderMead:
    """scipy Nelder-Mead. It stops early when it converges; with ``restarts`` it
    starts again from a new random point, otherwise it under-spends (and the
    comparison says so)."""
    workloads = ("bbob",)

    def __init__(self, restarts: bool = False):
        self.restarts = restarts

    def run(self, instance, meter, rng):
        from scipy.optimize import minimize  # start-up: a worker loads scipy only for this arm

        f = instance.objective(meter)
        while True:
            minimize(f, _start(instance, rng), method="Nelder-Mead",
                     options={"maxfev": 10**9, "xatol": 1e-10, "fatol": 1e-12})
            if not self.restarts:
                return f.best_x


class DifferentialEvolution:
    """scipy differential evolution (no evaluation cap of its own; the wrapper stops it)."""
    workloads = ("bbob",)

    def __init__(self, popsize: int = 10):
        self.popsize = popsize

    def run(self, instance, meter, rng):
        from scipy.optimize import differential_evolution  # start-up: only for this arm

        f = instance.objective(meter)
        bounds = list(zip(instance.lower, instance.upper))
        while True:  # if it converges before the budget, restart (a fresh population)
            differential_evolution(f, bounds, popsize=self.popsize, maxiter=10**6, tol=1e-12,
                                   polish=False, seed=int(rng.integers(2**31)), updating="immediate")


class CMAES:
    """CMA-ES (`cma`), restarted from a new point whenever it stops before the budget."""
    workloads = ("bbob",)

    def __init__(self, sigma0: float = 2.0):
        self.sigma0 = sigma0

    def run(self, instance, meter, rng):
        import cma  # start-up: only for this arm

        f = instance.objective(meter)
        while True:
            es = cma.CMAEvolutionStrategy(_start(instance, rng), self.sigma0,
                                          {"bounds": [list(instance.lower), list(instance.upper)],
                                           "verbose": -9, "seed": int(rng.integers(1, 2**31)),
                                           "tolfun": 1e-12, "tolx": 1e-12})
            while not es.stop():
                xs = es.ask()
                es.tell(xs, [f(x) for x in xs])


class OptunaTPE:
    """Optuna's TPE sampler (`optuna` is a core dependency of costmatch)."""
    workloads = ("bbob",)

    def __init__(self, startup_trials: int = 10):
        self.startup_trials = startup_trials

    def run(self, instance, meter, rng):
        try:
            import optuna  # start-up, and optional: only for this arm
        except ImportError:
            raise RuntimeError("the optuna arm needs optuna, a dependency of costmatch that is missing here: "
                               "pip install 'optuna>=3.5' (or reinstall costmatch)") from None
        optuna.logging.set_verbosity(optuna.logging.WARNING)
        f = instance.objective(meter)
        sampler = optuna.samplers.TPESampler(seed=int(rng.integers(2**31)), n_startup_trials=self.startup_trials)
        study = optuna.create_study(sampler=sampler)
        d = instance.dimension

        def objective(trial):
            return f([trial.suggest_float(f"x{i}", float(instance.lower[i]), float(instance.upper[i]))
                      for i in range(d)])

        study.optimize(objective, n_trials=10**9, catch=())
