"""The field's metrics, implemented once for every benchmark."""
