// Nodes that are not graphprum's (a :Meta node is graphprum's only when keyed 'graphprum')
MATCH (n)
WHERE NOT (n:Unit OR n:Document OR n:Attribute OR n:PendingLink OR n:Summary
           OR (n:Meta AND coalesce(n.key = 'graphprum', false)) OR n:CStarClass)
RETURN count(n) AS n
