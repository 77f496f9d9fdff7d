// Remove everything graphprum stored (in batches: the store repeats until 0);
// another program's :Meta nodes (not keyed 'graphprum') are left alone
MATCH (n)
WHERE n:Unit OR n:Document OR n:Attribute OR n:PendingLink OR n:Summary
   OR (n:Meta AND coalesce(n.key = 'graphprum', false)) OR n:CStarClass
WITH n LIMIT 20000
DETACH DELETE n
RETURN count(*) AS n
