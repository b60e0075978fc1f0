# Configuration overrides, executed by train.py in its own globals (the published recipe):
#   python train.py config/train_tiny.py --batch_size=8 --compile=False
# A bare argument is a file of assignments executed as Python; --key=value overrides a global
# of train.py, the value read as a Python literal when it is one, else taken as a string.
import sys
from ast import literal_eval

for arg in sys.argv[1:]:
    if "=" not in arg:
        assert not arg.startswith("--")
        config_file = arg
        print(f"Overriding config with {config_file}:")
        with open(config_file) as f:
            print(f.read())
        exec(open(config_file).read())
    else:
        assert arg.startswith("--")
        key, val = arg.split("=", 1)
        key = key[2:]
        if key in globals():
            try:
                attempt = literal_eval(val)
            except (SyntaxError, ValueError):
                attempt = val
            assert type(attempt) == type(globals()[key]), (
                f"{key}: {type(attempt)} vs {type(globals()[key])}"
            )
            print(f"Overriding: {key} = {attempt}")
            globals()[key] = attempt
        else:
            raise ValueError(f"Unknown config key: {key}")
