"""Merge krms2's rms_norm GPU outputs (unpacked under INCOMING) into docs/results/* (rms_norm rows only)."""
import importlib.util
import json
import sys
from pathlib import Path
REPO = Path(__file__).resolve().parents[4]  # the repository root
INC = Path(sys.argv[1])
def EXPERIMENT(name):  # uncommitted experiments: xo2_, xw_, xp8_, xp4_
    return name.startswith('x')

def load_script(path, name):
    spec = importlib.util.spec_from_file_location(name, path)
    m = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(REPO))
    spec.loader.exec_module(m)
    return m

rr = load_script(REPO / 'scripts/gpu/run_reference.py', 'rr')
bp = load_script(REPO / 'scripts/gpu/bench_ports.py', 'bp')
res = REPO / 'docs/results'

# 1. reference_results: this run's rms_norm (experiments dropped), the rest merged from the committed file.
doc = json.load(open(INC / 'ref/reference_results.json'))
doc['results'] = [r for r in doc['results'] if not EXPERIMENT(r['variant'])]
doc['bench'] = [b for b in doc['bench'] if not EXPERIMENT(b['variant'])]
prev = json.load(open(res / 'reference_results.json'))
rr._merge(doc, prev)
(res / 'reference_results.json').write_text(json.dumps(doc, indent=1) + '\n')
(res / 'reference_results.md').write_text(rr.render_markdown(doc))
print('reference_results', doc['summary'])

# 2. ports_bench: merge_runs([committed, this run]) (this run's rms_norm configurations win).
pb_prev = json.load(open(res / 'ports_bench.json'))
pb_new = json.load(open(INC / 'ports/ports_bench.json'))
merged = bp.merge_runs([pb_prev, pb_new])
(res / 'ports_bench.json').write_text(json.dumps(merged, indent=1))
print('ports_bench', merged['summary']['overall']['configs'], merged['summary']['ops'].get('rms_norm'))

# 3. selection / selection_repeat: rms_norm rows replaced in place by pass 1 / pass 2, each row with its run.
for name, sel in (('selection.json', 'sel1'), ('selection_repeat.json', 'sel2')):
    old = json.load(open(res / name))
    new = json.load(open(INC / sel / 'selection.json'))
    env = new['environment']
    run = {k: env[k] for k in ('date', 'gpu', 'timing')}
    rows_new = [{**r, 'run': run} for r in new['rows'] if r['op'] == 'rms_norm']
    first = next(i for i, r in enumerate(old['rows']) if r['op'] == 'rms_norm')
    rest = [r for r in old['rows'] if r['op'] != 'rms_norm']
    old['rows'] = rest[:first] + rows_new + rest[first:]
    (res / name).write_text(json.dumps(old, indent=1) + '\n')
    print(name, len(rows_new))

# 4. ports_results: rms_norm cases replaced in place, each with this run's date/gpu/driver.
pr = json.load(open(res / 'ports_results.json'))
new = json.load(open(INC / 'pytest/ports_results.json'))
tag = {k: new[k] for k in ('date', 'gpu', 'driver')}
cases_new = [{**c, **tag} for c in new['cases'] if c['op'] == 'rms_norm']
first = next(i for i, c in enumerate(pr['cases']) if c['op'] == 'rms_norm')
rest = [c for c in pr['cases'] if c['op'] != 'rms_norm']
pr['cases'] = rest[:first] + cases_new + rest[first:]
(res / 'ports_results.json').write_text(json.dumps(pr, indent=1) + '\n')
print('ports_results', len(cases_new), sum(c['result'] == 'pass' for c in cases_new))
