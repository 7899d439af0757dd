"""Human evaluation (`synth rate`): blind rating pages drawn from runs and human datasets, the key that maps their
items back to sources, the raters' returned ratings, and their scores (win or defect rates with intervals, the
share judged sound, agreement between raters)."""
