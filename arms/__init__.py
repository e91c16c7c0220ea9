"""Arms: the policies under test. See `arms.base.Arm` for the interface."""
from .base import Arm, ArmOutput

__all__ = ["Arm", "ArmOutput"]
