#!/bin/sh
# What Strimzi would provide, for the test node: one KRaft node (broker and controller) that clients find
# through <cluster>-kafka-bootstrap:9092 and then reach under its pod's own name (ADVERTISED_HOST), and the
# topic its topic operator would create.
set -eu
data=/var/lib/kafka
# Not ready (an empty marker) until the topic exists; the image has sh, cat and sleep, not rm.
: >"$data/topic-ready"
cat >"$data/server.properties" <<PROPERTIES
process.roles=broker,controller
node.id=0
controller.quorum.voters=0@localhost:9093
listeners=PLAIN://:9092,CONTROLLER://localhost:9093
advertised.listeners=PLAIN://$ADVERTISED_HOST:9092
listener.security.protocol.map=PLAIN:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAIN
controller.listener.names=CONTROLLER
log.dirs=$data/logs
auto.create.topics.enable=false
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
share.coordinator.state.topic.replication.factor=1
default.replication.factor=1
min.insync.replicas=1
PROPERTIES
# shellcheck disable=SC2086 # one word per JVM flag
run() { java $KAFKA_HEAP_OPTS -cp '/opt/kafka/lib/*' "$@"; }
run kafka.tools.StorageTool format --ignore-formatted -t "$CLUSTER_ID" -c "$data/server.properties" >/dev/null
run kafka.Kafka "$data/server.properties" &
broker=$!
trap 'kill -TERM $broker' TERM INT
# The topic operator's part: the topics (one per build), once the broker answers.
for topic in $TOPICS; do
  until run org.apache.kafka.tools.TopicCommand --bootstrap-server localhost:9092 --create --if-not-exists \
    --topic "$topic" --partitions 1 --replication-factor 1 >/dev/null 2>&1; do
    kill -0 $broker 2>/dev/null || exit 1
    sleep 1
  done
  echo "topic $topic ready"
done
echo "$TOPICS" >"$data/topic-ready"
wait $broker
