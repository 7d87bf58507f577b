"""Publishing: what the docs show of the summaries committed in docs/results, and the checks that hold them to their
runs. It reads documents; it measures nothing."""
