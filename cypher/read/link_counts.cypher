MATCH (p:PendingLink)
OPTIONAL MATCH (s:Unit {uid: p.src})-[l:LINK {key: p.key}]->(:Unit)
RETURN count(p) AS records, count(l) AS resolved
