class Arm:
    run = 3
