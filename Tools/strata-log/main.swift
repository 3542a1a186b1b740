print("strata-log: under construction")
