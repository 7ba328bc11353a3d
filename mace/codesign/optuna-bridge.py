"""Optuna's TPE sampler behind a JSON-lines ask/tell protocol on stdin/stdout (driven by optuna.ts).

The first line configures the study and is answered {"ok": true, "optuna": "<version>"}:
    {"knobs": [{"name": "l2_size", "values": [65536, 131072]}, ...], "seed": 7}
Then one reply per request, in order:
    {"op": "ask"}                          -> {"trial": 0, "params": {"l2_size": 131072, ...}}
    {"op": "tell", "trial": 0, "value": 1.5} -> {"ok": true}
    {"op": "close"}                        -> no reply; the process exits 0 (as it does at end of input)
A bad line is answered {"error": "..."} and the bridge keeps serving.
Every knob is categorical, so the values come back with the JSON types they were given.
"""

import json
import sys
import warnings

import optuna
from optuna.distributions import CategoricalDistribution
from optuna.samplers import TPESampler


class BadRequest(Exception):
    pass


def make_study(config):
    if not isinstance(config, dict):
        raise BadRequest('the first line must be an object {"knobs": [...], "seed": N}')
    knobs = config.get("knobs")
    seed = config.get("seed")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise BadRequest(f"seed must be an integer, got {seed!r}")
    if not isinstance(knobs, list) or not knobs:
        raise BadRequest('knobs must be a non-empty list of {"name": str, "values": [...]}')
    distributions = {}
    for i, knob in enumerate(knobs):
        name = knob.get("name") if isinstance(knob, dict) else None
        values = knob.get("values") if isinstance(knob, dict) else None
        if not isinstance(name, str) or not name:
            raise BadRequest(f"knobs[{i}].name must be a non-empty string")
        if name in distributions:
            raise BadRequest(f"knobs[{i}].name {name!r} appears twice")
        if not isinstance(values, list) or not values:
            raise BadRequest(f"knobs[{i}] ({name}).values must be a non-empty list")
        if any(isinstance(v, bool) or not isinstance(v, (int, float, str)) for v in values):
            raise BadRequest(f"knobs[{i}] ({name}).values may hold only numbers and strings")
        distributions[name] = CategoricalDistribution(values)
    # constant_liar keeps a batch of asks (designs built in parallel) from all landing on one point.
    sampler = TPESampler(seed=seed, constant_liar=True)
    return optuna.create_study(direction="minimize", sampler=sampler), distributions


def serve(study, distributions, request):
    op = request.get("op") if isinstance(request, dict) else None
    if op == "ask":
        trial = study.ask(distributions)
        return {"trial": trial.number, "params": trial.params}
    if op == "tell":
        trial, value = request.get("trial"), request.get("value")
        if not isinstance(trial, int) or isinstance(trial, bool):
            raise BadRequest(f"tell needs an integer trial, got {trial!r}")
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            raise BadRequest(f"tell needs a numeric value, got {value!r}")
        study.tell(trial, value)
        return {"ok": True}
    raise BadRequest(f'op must be "ask", "tell" or "close", got {op!r}')


def reply(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def main():
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
    study = None
    for line in iter(sys.stdin.readline, ""):
        try:
            request = json.loads(line)
            if isinstance(request, dict) and request.get("op") == "close":
                return
            if study is None:
                study, distributions = make_study(request)
                reply({"ok": True, "optuna": optuna.__version__})
                continue
            reply(serve(study, distributions, request))
        except BadRequest as error:
            reply({"error": str(error)})
        except (ValueError, RuntimeError) as error:
            # Optuna's own refusals (an unknown or finished trial) and malformed JSON.
            reply({"error": f"{type(error).__name__}: {error}"})


if __name__ == "__main__":
    main()
