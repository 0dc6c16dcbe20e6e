def fairness_columns(specs, rows, options):
    return {}
