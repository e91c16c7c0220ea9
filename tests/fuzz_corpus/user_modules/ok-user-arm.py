from tests.helpers import Guess as Arm
