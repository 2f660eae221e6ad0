"""``python -m optuna_psms.meta``."""

from optuna_psms.meta import main


main()
