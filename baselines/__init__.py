"""costmatch core: budgets, metered spend, run records and cost-matched comparison.

The public surface is what a user's arm, workload or analysis script needs;
everything else is an implementation detail of the CLI.
"""
from .budget import Budget
from .compare import Comparison, compare
from .errors import InputError
from .meter import BudgetExhausted, Meter
from .records import RunRecord, read_records, write_records
from .table import RunTable

__all__ = ["Budget", "BudgetExhausted", "Comparison", "InputError", "Meter", "RunRecord",
           "RunTable", "compare", "read_records", "write_records"]
__version__ = "0.1.0"
