// libmosquitto, Eclipse's reference MQTT client (Debian's libmosquitto-dev), for
// loctrack's publisher. Only Sources/LocTrackMQTT/Broker imports this module; the
// rest of loctrack calls the wrappers there.
#ifndef LOCTRACK_MOSQUITTO_SHIM_H
#define LOCTRACK_MOSQUITTO_SHIM_H

#include <mosquitto.h>

// mosquitto.h's return codes are an enum Swift imports as a type of its own, while
// every call returns a plain int: one name for "success" spares the casts.
static const int loctrack_mosquitto_success = MOSQ_ERR_SUCCESS;

#endif
