"""This guide's markers: the GPU catalog, the public prices, the accuracy tables and the pilot results."""
