# Summarises the output of firstkeys-floors.sh: python3 bench/results/firstkeys-floors-summ.py out.txt
import json,sys,re,statistics
rows=[]; cur=None
agg={}
for l in open(sys.argv[1]):
    m=re.match(r'## binary=(\w+) round=(\d) (\S+) load-before: (.*)',l)
    if m: cur=m.groups(); continue
    if l.startswith('{'):
        d=json.loads(l)
        ds=d.get('dataset') or f"{d['events']:,}"
        for s in d['shapes']:
            kind='16 clients' if s['clients']==16 else ('1 client (calls)' if cur[2]=='calls' else '1 client')
            rows.append((cur[0],cur[1],ds,s['shape'],kind,s['calls'],s['p50_ms'],s['p95_ms'],s['cpu_ms_per_call'],cur[3]))
            agg.setdefault((ds,s['shape'],kind,cur[0]),[]).append((s['cpu_ms_per_call'],s['p50_ms']))
print('| binary | round | dataset | phase | clients | calls | p50 / p95 ms | CPU ms/call | load before |')
print('|---|---|---|---|---|---|---|---|---|')
for r in rows:
    print(f'| {r[0]} | {r[1]} | {r[2]} | `{r[3]}` | {r[4]} | {r[5]} | {r[6]:.1f} / {r[7]:.1f} | {r[8]:.1f} | {r[9]} |')
print()
print('| dataset | phase | clients | main: CPU ms/call, p50 ms (medians of rounds) | new | CPU change | p50 change |')
print('|---|---|---|---|---|---|---|')
for k in sorted({(a,b,c) for a,b,c,_ in agg}):
    m=agg.get(k+('main',),[(0,0)]); n=agg.get(k+('new',),[(0,0)])
    mc,mp=statistics.median(x[0] for x in m),statistics.median(x[1] for x in m)
    nc,np_=statistics.median(x[0] for x in n),statistics.median(x[1] for x in n)
    print(f'| {k[0]} | `{k[1]}` | {k[2]} | {mc:.1f}, {mp:.1f} | {nc:.1f}, {np_:.1f} | {100*(nc-mc)/mc:+.0f}% | {100*(np_-mp)/mp:+.0f}% |')
