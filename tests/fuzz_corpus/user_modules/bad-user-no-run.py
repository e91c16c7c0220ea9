class Arm:
    pass
