CALL db.indexes() YIELD label, properties
RETURN label, properties
