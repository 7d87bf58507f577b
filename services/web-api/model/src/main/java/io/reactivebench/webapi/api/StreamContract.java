package io.reactivebench.webapi.api;

/** The stream's request header, the same in every build. */
public final class StreamContract {
    /** Sent by an SSE client when it reconnects: the id of the last event it received (EventSource does so itself). */
    public static final String LAST_EVENT_ID = "Last-Event-ID";
    public static final String LAST_EVENT_ID_DESCRIPTION = "The last article id the client received: the articles "
            + "created after it that this instance still remembers (the last minute) are sent first";

    private StreamContract() {
    }
}
