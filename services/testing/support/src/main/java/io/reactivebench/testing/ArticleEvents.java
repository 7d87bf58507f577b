package io.reactivebench.testing;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.Future;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.LongSerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.eclipse.microprofile.config.ConfigProvider;

/** Reads and writes the real {@code articles.created} topic, as a test's own Kafka client. */
public final class ArticleEvents {
    public static final String TOPIC = "articles.created";

    private ArticleEvents() {
    }

    /** The first event on the topic (from its beginning) whose JSON value matches, within the timeout. */
    public static Optional<String> await(Predicate<String> match, Duration timeout) {
        Properties config = new Properties();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        config.put(ConsumerConfig.GROUP_ID_CONFIG, "contract-" + UUID.randomUUID());
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(TOPIC));
            Instant deadline = Instant.now().plus(timeout);
            while (Instant.now().isBefore(deadline)) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    if (match.test(record.value())) {
                        return Optional.of(record.value());
                    }
                }
            }
        }
        return Optional.empty();
    }

    public static void publish(long key, String json) {
        publishAll(Map.of(key, json));
    }

    /** Sends every event (key → JSON) as one burst from one producer, and waits until all are acknowledged. */
    public static void publishAll(Map<Long, String> events) {
        Properties config = new Properties();
        config.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        try (KafkaProducer<Long, String> producer = new KafkaProducer<>(config, new LongSerializer(), new StringSerializer())) {
            List<Future<RecordMetadata>> sent = new ArrayList<>();
            events.forEach((key, json) -> sent.add(producer.send(new ProducerRecord<>(TOPIC, key, json))));
            for (Future<RecordMetadata> acknowledged : sent) {
                acknowledged.get();
            }
        } catch (Exception e) {
            throw new IllegalStateException("could not publish to " + TOPIC, e);
        }
    }

    private static String bootstrapServers() {
        return ConfigProvider.getConfig().getValue("kafka.bootstrap.servers", String.class);
    }
}
