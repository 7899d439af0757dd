"""Dataset statistics, CRS baselines and performance benchmarks."""
