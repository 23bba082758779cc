"""This guide's site code beside its calculators: the markers that place its tables in pages
(`markers`), the pilot results page and the import panels (`results`), a model's config.json read
into the memory calculator's dimensions (`model_config`)."""
