"""Each memory records the version of its type it was written with. Existing memories were all written with
version 1 of today's types (the catalogue's v1 files are those types unchanged): filled in place by the column
default, which stays (writers that predate the column, such as the benchmarks' bulk loads, write version 1);
reversing drops the column."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("memory", "0009_memory_type_rls_i13")]
    operations = [
        migrations.AddField(model_name="memory", name="type_version",
                            field=models.PositiveIntegerField(default=1, db_default=1)),
    ]
