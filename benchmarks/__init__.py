"""Performance measurements (`make bench`); each reports ratios against a baseline taken in the same run."""
