#!/usr/bin/env python3
"""Classify a directory of captures with Spark, into Parquet: the flows of every capture, one
row per flow record (wirespeed.spark; docs/SPARK.md).

    python examples/spark_classify.py CAPTURES/ -o flows.parquet [--master local[4]] [options]
    spark-submit --master yarn --archives wirespeed-env.tar.gz#env \
        --conf spark.pyspark.python=./env/bin/python examples/spark_classify.py \
        /mnt/captures -o /mnt/out/flows.parquet

`--help` lists the options (wirespeed.classify's: --community-id, --stats dist,tcp,
--features, --rules FILE, ...). Writes a Parquet directory of one part file a capture (or a
`--partitions N` of them) and prints how many records it holds.
"""

import sys

from wirespeed.spark import main

if __name__ == "__main__":
    sys.exit(main())
