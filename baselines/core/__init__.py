"""The core: what an arm, a workload or a model client needs at run time, and nothing more.

Units and budgets, the meter that measures spend, the run record and its
reader and writer, atomic files, the arm and workload protocols, model
clients and their prices, provenance, and the one error type users see.
It imports no other layer, and none of it loads pandas, scipy or
matplotlib, so an arm's worker starts fast.
"""
