package io.reactivebench.testing;

import io.restassured.specification.RequestSpecification;

/** What a service's Prometheus text says, read through its management port: every build's suites and the floor's. */
public final class Metrics {
    private Metrics() {
    }

    /** The sum of the Prometheus samples whose line starts with {@code prefix} (a name, and labels), 0 when none does. */
    public static double sum(RequestSpecification management, String prefix) {
        return management.get("/q/metrics").then().statusCode(200).extract().asString().lines()
                .filter(line -> line.startsWith(prefix))
                .mapToDouble(line -> Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                .sum();
    }
}
