class Arm:
    def run(self, instance, meter, rng)
        pass
