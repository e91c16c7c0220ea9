class Arm:
    def __init__(self):
        raise KeyError('k')
    def run(self, i, m, r):
        return 0
