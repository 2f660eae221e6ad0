"""``python -m optuna_psms.cli``."""

from optuna_psms.cli import main


raise SystemExit(main())
