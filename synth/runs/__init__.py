"""The run folder: its file names, the typed manifest, drops and filter report, the one record reader and
the atomic writers. Every command reads and writes run folders through this package."""
