"""What an experiment's document means, where the run that writes it and what publishes it both read it: its shape
and the rules its figures follow (how a latency map's cells form its grid, when their repeats agree, the ratios it
keeps, the law its predictions follow). A schema measures nothing and publishes nothing: it imports only the core's
modules that measure nothing, so that measuring and publishing can each import it and still not each other."""
