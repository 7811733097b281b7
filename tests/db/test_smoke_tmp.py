from harness.db import open_database
def test_smoke(db):
    assert db.schema_differences() == []
    print(db)
