def exposure_columns(specs, rows, options):
    return {}
