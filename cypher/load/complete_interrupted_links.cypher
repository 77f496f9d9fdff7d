// The link records of a load killed while it made its documents visible,
// finished by the next load or load --resume (the only incomplete ones then)
MATCH (p:PendingLink)
WHERE NOT p.complete
SET p.complete = true
