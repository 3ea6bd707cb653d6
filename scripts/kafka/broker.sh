#!/usr/bin/env bash
# A one-node Apache Kafka on 127.0.0.1 in KRaft mode (broker and controller in one process,
# no ZooKeeper), for trying `wirespeed classify --kafka` and for its benchmark (BENCHMARKS.md).
# crates/cli/tests/it/kafka.rs starts its own brokers the same way.
#
#   scripts/kafka/broker.sh fetch              the jars only (prints their folder)
#   scripts/kafka/broker.sh run [PORT [DIR [CPORT]]]
#       a broker on 127.0.0.1:PORT (default 9092), its controller on CPORT (default PORT + 1),
#       its logs in DIR (default a new temporary folder; formatted unless it already was), in
#       the foreground until SIGTERM or SIGINT; run again on the same DIR, it goes on where it
#       stopped
#
# The jars come from Maven Central through Maven (scripts/kafka/pom.xml: kafka_2.13 and its
# runtime dependencies), copied once into ${XDG_CACHE_HOME:-~/.cache}/wirespeed/kafka-VERSION
# ($WIRESPEED_KAFKA_LIBS names another folder). Needs java (17) and mvn.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
version=$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$here/pom.xml")
libs=${WIRESPEED_KAFKA_LIBS:-${XDG_CACHE_HOME:-$HOME/.cache}/wirespeed/kafka-$version}

fetch() {
    # Brokers started at once (the tests run in parallel) fetch one at a time under a lock: two
    # copies into one folder failed ("Failed to copy full contents") on a fresh machine.
    mkdir -p "$(dirname "$libs")"
    exec 9>"$libs.lock"
    flock 9
    if [ ! -f "$libs/.complete" ]; then
        mvn -q -f "$here/pom.xml" dependency:copy-dependencies -DincludeScope=runtime \
            -DoutputDirectory="$libs" >&2
        touch "$libs/.complete"
    fi
    exec 9>&-
}

case "${1:-run}" in
fetch)
    fetch
    echo "$libs"
    ;;
run)
    fetch
    port=${2:-9092}
    dir=${3:-$(mktemp -d "${TMPDIR:-/tmp}/wirespeed-kafka.XXXXXX")}
    mkdir -p "$dir/data"
    cport=${4:-$((port + 1))}
    cat >"$dir/server.properties" <<EOF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$cport
listeners=PLAINTEXT://127.0.0.1:$port,CONTROLLER://127.0.0.1:$cport
advertised.listeners=PLAINTEXT://127.0.0.1:$port
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$dir/data
num.partitions=3
auto.create.topics.enable=true
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
EOF
    printf 'log4j.rootLogger=WARN, stderr\nlog4j.appender.stderr=org.apache.log4j.ConsoleAppender\nlog4j.appender.stderr.Target=System.err\nlog4j.appender.stderr.layout=org.apache.log4j.PatternLayout\nlog4j.appender.stderr.layout.ConversionPattern=[%%d] %%p %%m (%%c)%%n\n' \
        >"$dir/log4j.properties"
    java=(java -Xmx1g "-Dlog4j.configuration=file:$dir/log4j.properties" -cp "$libs/*")
    if [ ! -f "$dir/data/meta.properties" ]; then
        "${java[@]}" kafka.tools.StorageTool format -t d2lyZXNwZWVkLXRlc3QxMQ \
            -c "$dir/server.properties" >&2
    fi
    echo "kafka: 127.0.0.1:$port, logs in $dir" >&2
    exec "${java[@]}" kafka.Kafka "$dir/server.properties"
    ;;
*)
    sed -n '2,16p' "$0" >&2
    exit 2
    ;;
esac
