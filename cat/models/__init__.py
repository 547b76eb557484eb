"""Built-in cat models (sc, tso, pso, power), written for herdsman."""
