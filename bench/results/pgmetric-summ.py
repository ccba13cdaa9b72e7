import json,sys
cur=None
rows=[]
for line in open(sys.argv[1]):
    if line.startswith('# binary:'):
        cur=line[len('# binary: '):].split(';')[0].strip()
    elif line.startswith('{'):
        r=json.loads(line)
        ds=r.get('dataset') or str(r['events'])
        for s in r['shapes']:
            rows.append((ds,s['shape'],cur,s['calls'],s['p50_ms'],s['p95_ms'],s['cpu_ms_per_call']))
print("| dataset | shape | binary | calls | p50 ms | p95 ms | client CPU ms/call |")
print("|---|---|---|---|---|---|---|")
for r in sorted(rows,key=lambda r:(r[0],r[1])):
    print("| %s | %s | %s | %d | %.1f | %.1f | %.1f |"%r)
