package io.reactivebench.webapi.stream;

import io.smallrye.common.annotation.Identifier;
import io.smallrye.reactive.messaging.kafka.KafkaConsumerRebalanceListener;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.common.TopicPartition;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * Starts the stream's consumer a while back instead of at the topic's end, once per partition: a new instance
 * (the pod a rolling update starts) then remembers the articles its clients may have missed while they moved
 * over from the instance that stopped, and replays them after their {@code Last-Event-ID}. Later assignments
 * (the consumer rejoining after a broker restart) keep their position: seeking back then could skip ahead of it.
 */
@ApplicationScoped
@Identifier("replay-window")
public class ReplayWindow implements KafkaConsumerRebalanceListener {
    private final Duration window;
    private final Set<TopicPartition> started = new HashSet<>();

    public ReplayWindow(@ConfigProperty(name = "web-api.stream.replay-window", defaultValue = "60s") Duration window) {
        this.window = window;
    }

    @Override
    public synchronized void onPartitionsAssigned(Consumer<?, ?> consumer, Collection<TopicPartition> partitions) {
        long since = System.currentTimeMillis() - window.toMillis();
        Map<TopicPartition, Long> firsts = partitions.stream().filter(started::add)
                .collect(Collectors.toMap(Function.identity(), partition -> since));
        if (!firsts.isEmpty()) {
            // null: nothing that recent in this partition, so the consumer stays where it is (the end).
            consumer.offsetsForTimes(firsts).forEach((partition, found) -> {
                if (found != null) {
                    consumer.seek(partition, found.offset());
                }
            });
        }
    }
}
